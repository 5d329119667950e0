"""Club pages: public (public.py), organisers' management (manage.py), nights (nights.py)."""
